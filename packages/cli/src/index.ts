export { buildProgram } from './program.js';
