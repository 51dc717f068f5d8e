import { createRequire } from 'node:module';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../../..');

/** A JavaScript runtime other than Node that the smoke suites run the workspace on. */
export type OtherRuntime = 'bun' | 'deno';

/** The package of `runtime` holding its native binary for this platform, and the binary in it. */
function platformBinary(runtime: OtherRuntime): string {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  if (runtime === 'bun') {
    return `@oven/bun-${process.platform}-${arch === 'arm64' ? 'aarch64' : 'x64'}/bin/bun`;
  }
  const platform =
    process.platform === 'linux' ? `linux-${arch}-glibc` : `${process.platform}-${arch}`;
  return `@deno/${platform}/deno`;
}

/** How to run a JavaScript file under another runtime: `command ...args <file>`, with `env` added. */
export interface RuntimeCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Test helper: how to run a JavaScript file under `runtime`, from the `bun` and `deno` npm
 * packages (root devDependencies): their native binary, resolved in the platform package each of
 * them depends on. Not through the packages' `bin` entries: pnpm does not run their postinstall
 * scripts (which would link the binary there), and deno's entry is a Node script that would stand
 * between the test and the runtime's signals.
 *
 * @example const deno = runtimeCommand('deno'); spawn(deno.command, [...deno.args, script], { env: { ...process.env, ...deno.env } });
 */
export function runtimeCommand(runtime: OtherRuntime): RuntimeCommand {
  const launcher = createRequire(join(ROOT, 'package.json')).resolve(`${runtime}/package.json`);
  const command = createRequire(launcher).resolve(platformBinary(runtime));
  return runtime === 'bun'
    ? { command, args: [], env: { DO_NOT_TRACK: '1' } }
    : // -A: a Node program reads files, the environment and the network without asking.
      { command, args: ['run', '-A'], env: { DENO_NO_UPDATE_CHECK: '1' } };
}
