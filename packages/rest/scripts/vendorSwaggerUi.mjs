// Copies the two swagger-ui files `/docs` serves (and swagger-ui's license) from the
// swagger-ui-dist dev dependency into vendor/swagger-ui, which the package ships: an install
// of @vesta/rest then brings no swagger-ui-dist, and so no @scarf/scarf install script.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const to = fileURLToPath(new URL('../vendor/swagger-ui/', import.meta.url));
mkdirSync(to, { recursive: true });
for (const file of [
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.LICENSE.txt',
  'swagger-ui.css',
  'LICENSE',
  'NOTICE',
]) {
  copyFileSync(join(from, file), join(to, file));
}
