/**
 * This process's environment without the `npm_*` variables a package manager sets for the
 * scripts it runs (`npm_config_*`, `npm_lifecycle_*`, ...): a test run through `pnpm test`
 * would otherwise hand pnpm's settings (user agent, dry run, registry) to the npm or pnpm it
 * starts. `extra` is added on top.
 */
export function withoutNpmConfig(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
    ),
    ...extra,
  };
}
