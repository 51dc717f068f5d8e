import { VestaError, type VestaErrorCode } from '@vesta/core';

/** The code a failed command reports: the VestaError's own, INTERNAL_ERROR for anything else. */
export function commandErrorCode(error: unknown): VestaErrorCode {
  if (!VestaError.is(error)) return 'INTERNAL_ERROR';
  // An older @vesta/rest or @vesta/server reports a failed bind as INVALID_OPTIONS.
  const cause: unknown = error.cause;
  if (
    error.code === 'INVALID_OPTIONS' &&
    cause instanceof Error &&
    (cause as NodeJS.ErrnoException).syscall === 'listen'
  ) {
    return 'LISTEN_FAILED';
  }
  return error.code;
}

/** Reports a failed command on one line of stderr, `vesta <command>: <CODE>: <reason>`; exit 1. */
export function reportCommandError(command: string, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `vesta ${command}: ${commandErrorCode(error)}: ${message.split('\n')[0] ?? ''}\n`,
  );
  process.exitCode = 1;
}
