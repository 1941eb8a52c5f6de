// ledger: a dynamic vat (created through vatAdmin, so its create-vat
// record says dynamic) that is upgraded once: the upgrade crank delivers
// stopVat to the old incarnation and startVat to the new one, two
// deliveries in one crank.  Its state is durable (baggage, a durable
// SetStore) so it survives the upgrade.
import { Far } from '@endo/far';
import { provideDurableSetStore } from '@agoric/vat-data';

export const buildRootObject = (_vatPowers, vatParameters, baggage) => {
  const { version } = vatParameters;
  const seen = provideDurableSetStore(baggage, 'seen');
  if (!baggage.has('entries')) baggage.init('entries', 0n);

  return Far('ledger', {
    add: key => {
      if (!seen.has(key)) seen.add(key);
      baggage.set('entries', baggage.get('entries') + 1n);
      return harden({
        version,
        entries: baggage.get('entries'),
        seen: seen.getSize(),
      });
    },
    version: () => version,
  });
};
