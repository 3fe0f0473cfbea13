/** "8e 00 05 0c 03" → bytes; lets golden tests read like the protocol header. */
export function hex(s: string): Uint8Array {
  const parts = s
    .trim()
    .split(/\s+/)
    .filter((p) => p.length > 0);
  return Uint8Array.from(
    parts.map((p) => {
      const v = Number.parseInt(p, 16);
      if (!/^[0-9a-fA-F]{1,2}$/.test(p) || Number.isNaN(v)) throw new Error(`bad hex byte ${p}`);
      return v;
    }),
  );
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}
