/** Fixture of compiledFixture.int.spec.ts: prints where the module it imports says it is. */
import { location } from './ownLocation.js';

process.stdout.write(JSON.stringify(location));
