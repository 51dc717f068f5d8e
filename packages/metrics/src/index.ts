export {
  createVestaMetrics,
  type OtelMeter,
  type RequestRecorder,
  type VestaMetrics,
  type VestaMetricsOptions,
} from './VestaMetrics.js';
