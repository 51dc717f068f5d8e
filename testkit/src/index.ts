export { ManualTimeSource } from './ManualTimeSource.js';
