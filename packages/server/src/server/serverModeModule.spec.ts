import { describeServerModeModule } from '@vesta/testkit/conformance';
import { serverModeModule } from './startIdServer.js';

describeServerModeModule({ name: 'serverModeModule', module: serverModeModule, genMethod: 1 });
