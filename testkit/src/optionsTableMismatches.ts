import { readFileSync } from 'node:fs';

/** An options declaration as `defineOptions` returns it: a zod object schema. */
interface Declaration {
  readonly schema: {
    readonly shape: Readonly<
      Record<string, { safeParse(value: unknown): { success: boolean; data?: unknown } }>
    >;
  };
}

/**
 * What a README's options table (the `| option | default | meaning |` rows after its
 * `## Options` heading, or in the `### <subsection>` named, up to the next heading) says differently from the declaration: an option in one but not the
 * other, a required option whose default is not `(required)`, an option whose literal default
 * (a number, string or boolean) is not the cell's. Empty when they agree.
 */
export function optionsTableMismatches(
  readmePath: string,
  declaration: Declaration,
  subsection?: string,
): string[] {
  const readme = readFileSync(readmePath, 'utf8');
  const section =
    subsection === undefined
      ? (readme.slice(readme.indexOf('\n## Options')).split(/\n## (?!Options)/)[0] ?? '')
      : (readme.slice(readme.indexOf(`\n### ${subsection}`) + 1).split(/\n#/)[0] ?? '');
  const table = new Map<string, string>();
  for (const [, name, cell] of section.matchAll(/^\| `(\w+)` \| ([^|]*) \|/gm)) {
    if (name !== undefined && cell !== undefined) table.set(name, cell.trim());
  }
  const mismatches: string[] = [];
  const shape = declaration.schema.shape;
  for (const name of table.keys()) {
    if (!(name in shape)) mismatches.push(`${name}: in the table, not declared`);
  }
  for (const [name, option] of Object.entries(shape)) {
    const cell = table.get(name);
    if (cell === undefined) {
      mismatches.push(`${name}: declared, not in the table`);
      continue;
    }
    const absent = option.safeParse(undefined);
    const value = absent.data;
    if (!absent.success) {
      if (cell !== '(required)') mismatches.push(`${name}: required, the table says ${cell}`);
    } else if (['number', 'string', 'boolean'].includes(typeof value)) {
      const expected = `\`${String(value)}\``;
      if (cell !== expected)
        mismatches.push(`${name}: defaults to ${expected}, the table says ${cell}`);
    }
  }
  return mismatches;
}
