// work.js: the chain scenario's own vat.  Each call does some metered
// computation and keeps its result in the vatstore (syscalls), so a block's
// deliveries have both worker time and kernel time, and the vat's heap grows
// a little, so that its heap snapshots are not all alike.
import { Far } from '@endo/far';

export const buildRootObject = (vatPowers, _params, baggage) => {
  let calls = baggage.has('calls') ? baggage.get('calls') : 0;
  const kept = [];
  return Far('root', {
    // n rounds of a small sieve; the result and a growing array stay.
    work(n) {
      let found = 0;
      for (let r = 0; r < n; r += 1) {
        const limit = 2000 + (r % 7) * 100;
        const sieve = new Uint8Array(limit);
        for (let i = 2; i < limit; i += 1) {
          if (!sieve[i]) {
            found += 1;
            for (let j = i * i; j < limit; j += i) sieve[j] = 1;
          }
        }
      }
      calls += 1;
      kept.push(`${calls}:${found}`);
      if (baggage.has('calls')) baggage.set('calls', calls);
      else baggage.init('calls', calls);
      return found;
    },
  });
};
