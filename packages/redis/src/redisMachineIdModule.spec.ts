import { describeMachineIdModuleBinding } from '@vesta/testkit/conformance';
import type { RedisMachineIdOptions } from './RedisMachineIdOptions.js';
import { redisMachineIdModule } from './redisCoordinator.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';

describeMachineIdModuleBinding<RedisMachineIdOptions>({
  name: 'redisMachineIdModule',
  module: redisMachineIdModule,
  provider: RedisMachineIdProvider,
  options: { url: 'redis://127.0.0.1:6379' },
  refused: [
    ['a URL of another scheme', { url: 'http://127.0.0.1:6379' }],
    ['an unknown option', { url: 'redis://127.0.0.1:6379', prefx: 'vesta' } as never],
  ],
});
