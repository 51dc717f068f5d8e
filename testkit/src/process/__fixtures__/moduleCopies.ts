/**
 * Fixture of compiledFixture.int.spec.ts: prints where it runs from, and whether a package
 * source file reached through a relative path is the module `@vesta/core` loads (one copy).
 */
// A deep path on purpose: compiledFixture must load it from its dist/ twin, not bundle it.
import { VestaError as viaPath } from '../../../../packages/core/src/errors/VestaError.js';
import { VestaError } from '@vesta/core';

process.stdout.write(
  JSON.stringify({ dirname: import.meta.dirname, oneVestaError: viaPath === VestaError }),
);
