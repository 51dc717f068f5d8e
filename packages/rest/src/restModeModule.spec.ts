import { describeServerModeModule } from '@vesta/testkit/conformance';
import { restModeModule } from './createRestIdService.js';

describeServerModeModule({ name: 'restModeModule', module: restModeModule, genMethod: 2 });
