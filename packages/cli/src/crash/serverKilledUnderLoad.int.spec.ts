import { silentLogger } from '@vesta/core';
import { createIdClient } from '@vesta/server';
import { describeKilledUnderLoad } from '../testing/describeKilledUnderLoad.js';
import { tcpIssue } from '../testing/tcpIssue.js';

describeKilledUnderLoad('server', 1008, async (port) => {
  const client = await createIdClient({
    servers: [`127.0.0.1:${port}`],
    connectionsPerServer: 2,
    logger: silentLogger,
  });
  return { issue: tcpIssue(client, 1000), close: () => client.close() };
});
