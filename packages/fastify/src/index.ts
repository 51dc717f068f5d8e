export { vestaFastify } from './vestaFastify.js';
export type { VestaFastifyOptions } from './VestaFastifyOptions.js';
