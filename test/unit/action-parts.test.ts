// The Action's pure parts, directly: the comment marker (written and read back from line 1 only),
// whose comments are the Action's own, the fence and escaping of the job's log (read back as the
// runner reads it, test/helpers/action-runner.ts), the outputs' delimiters, and the check that no
// folder on an output's way is a link.
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { authoredBy, ownMarkedComments, planCommentToUpdate } from "../../src/action/comments.js";
import { ActionFailed } from "../../src/action/context.js";
import { checkNoLinkedFolder } from "../../src/action/files.js";
import { ACTIONS_BOT, type Comment } from "../../src/action/github.js";
import { markerLine, readMarker } from "../../src/action/marker.js";
import { escapeData, fence, outputRecord } from "../../src/action/runner.js";
import { parseOutputs, runnerCommands } from "../helpers/action-runner.js";
import { tempDir } from "../helpers/cli.js";

const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;
const HEAD = "a".repeat(40);

describe("the marker", () => {
  it("is written and read back", () => {
    const line = markerLine({ kind: "plan", digest: DIGEST, head: HEAD, run: "4242" });
    expect(line).toBe(`<!-- zoneform:plan v2 digest=${DIGEST} head=${HEAD} run=4242 -->`);
    expect(readMarker(`${line}\n### zoneform plan\n`)).toEqual({
      kind: "plan",
      digest: DIGEST,
      head: HEAD,
      run: "4242",
    });
    expect(readMarker(markerLine({ kind: "failed", head: HEAD, run: "7" }))).toEqual({
      kind: "failed",
      head: HEAD,
      run: "7",
    });
  });

  it("is read from line 1 only, exactly: anything else is data", () => {
    const line = markerLine({ kind: "plan", digest: DIGEST, head: HEAD, run: "4242" });
    for (const body of [
      `\n${line}`,
      `text\n${line}`,
      ` ${line}`,
      `${line} `,
      `${line}\r\nrest`,
      `${line}x`,
      line.replace("v2", "v3"),
      line.replace("4242", "04242"),
      line.replace(HEAD, "A".repeat(40)),
      line.replace(DIGEST, `${DIGEST}0`),
      `Plan digest: \`${DIGEST}\``,
      "<!-- zoneform plan -->",
    ])
      expect(readMarker(body), JSON.stringify(body)).toBeUndefined();
    expect(readMarker(undefined)).toBeUndefined();
  });

  it("refuses to write a value not of its shape", () => {
    expect(() => markerLine({ kind: "plan", digest: "sha256:x -->", head: HEAD, run: "1" })).toThrow(/digest/);
    expect(() => markerLine({ kind: "plan", digest: DIGEST, head: `${HEAD} -->`, run: "1" })).toThrow(/head/);
    expect(() => markerLine({ kind: "failed", head: HEAD, run: "1 -->" })).toThrow(/run/);
  });
});

describe("the Action's own comments", () => {
  const marked = `${markerLine({ kind: "plan", digest: DIGEST, head: HEAD, run: "1" })}\nplan`;
  const comment = (id: number, login: string, type: string, body: string): Comment => ({
    id,
    body,
    user: { login, type },
  });

  it("are the token's identity's with the marker, oldest first", () => {
    const comments = [
      comment(5, "github-actions[bot]", "Bot", marked),
      comment(2, "other-app[bot]", "Bot", marked),
      comment(3, "github-actions[bot]", "User", marked), // not the bot
      comment(4, "github-actions[bot]", "Bot", `x\n${marked}`),
      comment(1, "GitHub-Actions[bot]", "Bot", marked),
    ];
    expect(ownMarkedComments(comments, ACTIONS_BOT).map((c) => c.comment.id)).toEqual([1, 5]);
    expect(ownMarkedComments(comments, { login: "other-app[bot]", bot: true }).map((c) => c.comment.id)).toEqual([2]);
    expect(authoredBy(comment(9, "ci-user", "User", ""), { login: "ci-user", bot: false })).toBe(true);
    expect(authoredBy({ id: 9, body: "", user: null }, ACTIONS_BOT)).toBe(false);
  });

  it("the one to update: the marked one, else the earlier versions' own, else none", () => {
    const legacy = comment(3, "github-actions[bot]", "Bot", "<!-- zoneform plan -->\nold");
    const persons = comment(1, "someone", "User", "<!-- zoneform plan -->\npasted");
    expect(planCommentToUpdate([persons, legacy], ACTIONS_BOT)?.id).toBe(3);
    expect(
      planCommentToUpdate([persons, legacy, comment(8, "github-actions[bot]", "Bot", marked)], ACTIONS_BOT)?.id,
    ).toBe(8);
    expect(planCommentToUpdate([persons], ACTIONS_BOT)).toBeUndefined();
  });
});

describe("the log", () => {
  const hostile = [
    "::set-output name=x::y",
    "  ::add-mask::secret",
    "::stop-commands::abc",
    "::abc::",
    "a ##[error]b",
    "::zoneform-00000000000000000000000000000000::",
    "::error::x\r::warning::y",
  ].join("\n");

  it("a fence lets nothing inside act, and ends only where the Action ends it", () => {
    const log = `${fence(hostile)}::notice::after\n`;
    const commands = runnerCommands(log);
    expect(commands.map((c) => c.command)).toEqual(["stop-commands", commands[0]!.data.toLowerCase(), "notice"]);
    expect(commands[0]!.data).toMatch(/^zoneform-[0-9a-f]{32}$/);
    expect(hostile.toLowerCase()).not.toContain(commands[0]!.data);
    expect(fence("no newline")).toMatch(/\nno newline\n::zoneform-[0-9a-f]{32}::\n$/);
  });

  it("a fence's token is new each time", () => {
    const tokens = new Set(Array.from({ length: 50 }, () => runnerCommands(fence("x"))[0]!.data));
    expect(tokens.size).toBe(50);
  });

  it("a message keeps its data in one command", () => {
    const line = `::error::${escapeData("a\nb\r%0A::add-mask::c ##[set-output name=d;]e \u001b[2J")}\n`;
    const commands = runnerCommands(line);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({
      command: "error",
      data: "a\nb\\r%0A::add-mask::c ##[set-output name=d;]e \\u001b[2J",
    });
  });

  it("an output's delimiter is not in its value", () => {
    const value = "line 1\nghadelimiter_x\nEOF\n";
    const record = outputRecord("digest", value);
    const delimiter = /^digest<<(.+)$/m.exec(record)![1]!;
    expect(value).not.toContain(delimiter);
    expect(parseOutputs(record)).toEqual({ digest: value });
  });
});

describe("outputs never through a linked folder", () => {
  it("refuses a folder under the workspace that is a link; allows plain folders and paths outside", async () => {
    const ws = await tempDir("zoneform-ws-");
    const elsewhere = await tempDir("zoneform-elsewhere-");
    await mkdir(join(ws, "plain/deeper"), { recursive: true });
    await symlink(elsewhere, join(ws, "linked"));
    expect(() => checkNoLinkedFolder(ws, join(ws, "file.json"), "x")).not.toThrow();
    expect(() => checkNoLinkedFolder(ws, join(ws, "plain/deeper/file.json"), "x")).not.toThrow();
    expect(() => checkNoLinkedFolder(ws, join(ws, "new/folder/file.json"), "x")).not.toThrow();
    expect(() => checkNoLinkedFolder(ws, join(elsewhere, "file.json"), "x")).not.toThrow();
    expect(() => checkNoLinkedFolder(ws, join(ws, "linked/file.json"), "drift-path")).toThrow(ActionFailed);
    expect(() => checkNoLinkedFolder(ws, join(ws, "linked/sub/file.json"), "drift-path")).toThrow(
      `drift-path ${join(ws, "linked/sub/file.json")}: ${join(ws, "linked")} is a symbolic link`,
    );
  });
});
