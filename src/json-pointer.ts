// JSON Pointer (RFC 6901) of a child: how every message of the file says where a value is.

export function childPointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}
