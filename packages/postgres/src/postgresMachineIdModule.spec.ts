import { describeMachineIdModuleBinding } from '@vesta/testkit/conformance';
import type { PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { postgresMachineIdModule } from './postgresCoordinator.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

describeMachineIdModuleBinding<PostgresMachineIdOptions>({
  name: 'postgresMachineIdModule',
  module: postgresMachineIdModule,
  provider: PostgresMachineIdProvider,
  options: { url: 'postgres://vesta@127.0.0.1:5432/app' },
  refused: [
    ['a URL of another scheme', { url: 'mysql://vesta@127.0.0.1:3306/app' }],
    ['an unknown option', { url: 'postgres://vesta@127.0.0.1:5432/app', shema: 'ids' } as never],
  ],
});
