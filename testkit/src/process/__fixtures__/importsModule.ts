/**
 * Fixture of compiledFixture.int.spec.ts: imports the compiled module whose URL is its argument
 * (`exportsVestaError.ts`) and prints whether that module's VestaError is its own (one copy of
 * `@vesta/core` in the process).
 */
import { VestaError } from '@vesta/core';

const other = (await import(process.argv[2] ?? '')) as { VestaError: unknown };
process.stdout.write(JSON.stringify({ oneVestaError: other.VestaError === VestaError }));
