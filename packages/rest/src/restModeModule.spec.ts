import { describeServerModeModule } from '@vesta/testkit/conformance';
import { restModeModule } from './restModeModule.js';

describeServerModeModule({ name: 'restModeModule', module: restModeModule, genMethod: 2 });
