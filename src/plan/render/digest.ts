// The line every rendering of a plan ends with when every zone could be planned: `plan`, `show` and the library's
// renderPlan() print it the same way.
export function digestLine(digest: string, format: "text" | "markdown"): string {
  return format === "markdown" ? `\nPlan digest: \`${digest}\`\n` : `Plan digest: ${digest}\n`;
}
