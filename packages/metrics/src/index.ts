export { createVestaMetrics, type VestaMetrics, type VestaMetricsOptions } from './VestaMetrics.js';
