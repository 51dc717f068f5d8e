import { VestaError, type VestaErrorCode } from '@vesta/core';

/** The code a failed command reports: the VestaError's own, INTERNAL_ERROR for anything else. */
export function commandErrorCode(error: unknown): VestaErrorCode {
  if (!VestaError.is(error)) return 'INTERNAL_ERROR';
  // A server that could not bind its port, from a @vesta/rest or @vesta/server that still reports
  // it as INVALID_OPTIONS: the operator's code for it is LISTEN_FAILED either way.
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

/**
 * Reports a failed command on one line of stderr, `vesta <command>: <CODE>: <reason>`, and sets
 * a non-zero exit code. A VestaError shows its code and message; anything else is
 * INTERNAL_ERROR with its message, since a command line has no one else to tell.
 */
export function reportCommandError(command: string, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `vesta ${command}: ${commandErrorCode(error)}: ${message.split('\n')[0] ?? ''}\n`,
  );
  process.exitCode = 1;
}
