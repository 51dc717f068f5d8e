import { TOKENS, type Claim, type IdPopulator, type VestaError } from '@vesta/core';
import { ContainerModule } from 'inversify';

/**
 * Test fixture: an id service module whose populator claims nothing at once. Every claim is
 * `claim()`; a synchronous one fails with `refuse()`. Decode, make, info and ping still work.
 */
export function stubPopulatorModule(
  claim: () => Promise<Claim>,
  refuse: () => VestaError,
): ContainerModule {
  const populator: IdPopulator = {
    kind: 'sync',
    canClaimSync: true,
    waiting: false,
    lastTime: 0,
    tryClaim: () => false,
    claimSync: () => {
      throw refuse();
    },
    claim,
    resumeAfter: () => undefined,
  };
  return new ContainerModule(({ rebindSync }) => {
    rebindSync<IdPopulator>(TOKENS.IdPopulator).toConstantValue(populator);
  });
}
