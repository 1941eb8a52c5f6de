// capper: deliveries sized to xsnap's stamp cap.  xsnap-worker keeps 502
// timestamps a delivery (MAX_TIMESTAMPS): d, a send and a reply per worker
// call (syscalls and console lines alike), and e.  burn(gets, lines) makes
// `gets` vatstoreGet syscalls (a durable MapStore reads the vatstore on
// every get) and then `lines` console lines, so the generator can make a
// delivery of exactly 250 syscalls and 1 console line: 251 calls, 504
// stamps needed, 502 kept, the last one the console line's send.
import { Far } from '@endo/far';
import { provideDurableMapStore } from '@agoric/vat-data';

export const buildRootObject = (_vatPowers, _vatParameters, baggage) => {
  const store = provideDurableMapStore(baggage, 'cells');
  if (!store.has('cell')) store.init('cell', 1n);
  return Far('capper', {
    burn: (gets, lines) => {
      let sum = 0n;
      for (let i = 0; i < gets; i += 1) sum += store.get('cell');
      for (let i = 0; i < lines; i += 1) console.log(`capper line ${i + 1} of ${lines}`);
      return `${sum}`;
    },
    ping: () => 'pong',
  });
};
