// What the recorded-answer loaders share: their error, and reading a result as items.
import { isObject } from "./validate.js";

/** A recorded answer the emulator cannot place (not a success, unknown path, wrong shape). */
export class RecordedAnswerError extends Error {}

export type RecordedItem = Record<string, unknown> & { id: string };

export function upsert<T extends { id: unknown }>(list: T[], item: T): void {
  const i = list.findIndex((x) => x.id === item.id);
  if (i >= 0) list[i] = item;
  else list.push(item);
}

export function arrayOf(result: unknown, what: string): RecordedItem[] {
  if (!Array.isArray(result)) throw new RecordedAnswerError(`a ${what} list answer has an array result`);
  return result.map((item) => objectOf(item, what));
}

export function objectOf(result: unknown, what: string): RecordedItem {
  if (!isObject(result) || (typeof result.id !== "string" && typeof result.id !== "number")) {
    throw new RecordedAnswerError(`a ${what} answer is an object with an id`);
  }
  return result as RecordedItem;
}
