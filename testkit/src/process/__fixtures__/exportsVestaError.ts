/**
 * Fixture of compiledFixture.int.spec.ts: a module that `importsModule.ts` imports at run time,
 * exporting the VestaError class it loaded.
 */
export { VestaError } from '@vesta/core';
