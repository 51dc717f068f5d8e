/** `request`, else `late()` after `ms` (a store client may queue a request while it reconnects). */
export async function withDeadline<T>(
  request: Promise<T>,
  ms: number,
  late: () => Error,
  { unref = false }: { readonly unref?: boolean } = {},
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
    if (unref) timer.unref();
  });
  request.catch(() => undefined);
  try {
    return await Promise.race([request, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
