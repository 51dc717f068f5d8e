import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** A check of `Authorization: Bearer <token>`; both sides hashed, so constant-time whatever the lengths. */
export function createBearerTokenCheck(token: string): (header: string | undefined) => boolean {
  const expected = digest(token);
  return (header) => {
    if (header === undefined || header.length > 2048) return false;
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (match === null) return false;
    return timingSafeEqual(digest(match[1] ?? ''), expected);
  };
}
