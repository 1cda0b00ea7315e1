/** The API speaks Unix seconds. */
export function toUnixSeconds(date: Date): number;
export function toUnixSeconds(date: Date | null | undefined): number | null;
export function toUnixSeconds(date: Date | null | undefined): number | null {
  return date ? Math.floor(date.getTime() / 1000) : null;
}

export function fromUnixSeconds(seconds: number): Date {
  return new Date(seconds * 1000);
}
