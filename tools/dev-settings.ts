/**
 * `--set NAME=value` on the development entries (`npm start`, `npm run loadtest`): a constant of
 * docs/configuration.md set for one run, the way a benchmark or a measurement switches a
 * mechanism (e.g. `--set COPY_MIN_OVERRIDES=0`). Constants are never read from the environment
 * (src/config/config.ts `loadConfig`); this hands them to its second argument.
 */
export interface DevSettings {
  readonly settings: Record<string, string>;
  /** The arguments without the `--set` pairs. */
  readonly rest: string[];
}

export function splitSettings(argv: readonly string[]): DevSettings {
  const settings: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const pair = arg === '--set' ? argv[++i] : arg.startsWith('--set=') ? arg.slice(6) : undefined;
    if (pair === undefined) {
      if (arg === '--set') throw new Error('--set needs NAME=value');
      rest.push(arg);
      continue;
    }
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`--set ${pair}: expected NAME=value`);
    settings[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return { settings, rest };
}
