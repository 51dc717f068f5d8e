import type { IdGenerators, IdService, Logger } from '@vesta/core';
import type { SegmentNumbers } from '@vesta/core/kit';
import type { RequestRecorder, VestaMetrics } from '@vesta/metrics';
import type { Welcome } from '../protocol/WelcomeMessage.js';
import type { AdmissionControl } from './AdmissionControl.js';
import type { ResolvedIdServerOptions } from './IdServerOptions.js';

/** What every connection of one server shares. */
export interface ConnectionContext {
  readonly service: IdService;
  /** The named generators over `service` (a GENERATE with a key). */
  readonly generators: IdGenerators;
  readonly options: ResolvedIdServerOptions;
  /** Segment mode's numbers (SEGMENT), when the server has a segment service. */
  readonly segments: SegmentNumbers | undefined;
  readonly welcome: Welcome;
  readonly metrics: VestaMetrics;
  /** Records answered GENERATEs (route `generate`), the hot path's cheap way into the metrics. */
  readonly generateRecorder: RequestRecorder;
  readonly logger: Logger;
  /** The server-wide caps on requests in flight and answer bytes queued. */
  readonly admission: AdmissionControl;
}
