// alice: the vatstore.  A durable kind (Counter) and a durable collection
// (a MapStore kept in baggage) so that the slogfile holds vatstoreGet/Set
// syscalls, virtual-object clist entries and durable-kind bookkeeping.
import { Far } from '@endo/far';
import {
  prepareKind,
  provideDurableMapStore,
} from '@agoric/vat-data';

export const buildRootObject = (_vatPowers, _vatParameters, baggage) => {
  const makeCounter = prepareKind(
    baggage,
    'Counter',
    name => ({ name, count: 0n }),
    {
      increment: ({ state }, delta) => {
        state.count += delta;
        return state.count;
      },
      read: ({ state }) => harden({ name: state.name, count: state.count }),
    },
  );
  const ledger = provideDurableMapStore(baggage, 'records');

  return Far('alice', {
    makeCounter: name => makeCounter(name),
    // Called by bob for every deposit: one entry per (round, account).
    record: (key, amount) => {
      if (ledger.has(key)) {
        ledger.set(key, ledger.get(key) + amount);
      } else {
        ledger.init(key, amount);
      }
      return ledger.getSize();
    },
    total: () => {
      let sum = 0n;
      for (const v of ledger.values()) sum += v;
      return sum;
    },
    hello: greeting => `alice got ${greeting}`,
  });
};
