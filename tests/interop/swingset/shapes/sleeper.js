// sleeper: a long delivery (a few syscalls, then a busy loop of `spins`
// iterations, then more syscalls) during which the generator SIGKILLs the
// whole kernel process; the next process resumes on the same swing-store.
import { Far } from '@endo/far';
import { provideDurableMapStore } from '@agoric/vat-data';

export const buildRootObject = (_vatPowers, _vatParameters, baggage) => {
  const store = provideDurableMapStore(baggage, 'cells');
  if (!store.has('cell')) store.init('cell', 0n);
  const touch = k => {
    for (let i = 0; i < k; i += 1) store.set('cell', store.get('cell') + 1n);
  };
  return Far('sleeper', {
    ping: () => 'pong',
    work: spins => {
      touch(3);
      let x = 0;
      for (let i = 0; i < spins; i += 1) x = (x + i) % 1000003;
      touch(3);
      return x;
    },
  });
};
