export {
  createVestaMetrics,
  type RequestRecorder,
  type VestaMetrics,
  type VestaMetricsOptions,
} from './VestaMetrics.js';
