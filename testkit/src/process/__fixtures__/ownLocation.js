/**
 * Fixture of compiledFixture.int.spec.ts: a JavaScript module that reads its own location, as a
 * package in node_modules may (`@nestjs/terminus` does).
 */
export const location = { dirname: import.meta.dirname, filename: import.meta.filename };
