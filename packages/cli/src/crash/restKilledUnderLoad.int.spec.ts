import { describeKilledUnderLoad } from '../testing/describeKilledUnderLoad.js';
import { restIssue } from '../testing/restIssue.js';

describeKilledUnderLoad('rest', 1009, (port) =>
  Promise.resolve(restIssue(`http://127.0.0.1:${port}`, 1000)),
);
