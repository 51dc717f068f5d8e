import { describeServerModeModule } from '@vesta/testkit/conformance';
import { serverModeModule } from './serverModeModule.js';

describeServerModeModule({ name: 'serverModeModule', module: serverModeModule, genMethod: 1 });
