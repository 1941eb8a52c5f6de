// spinner: a dynamic vat created with a meter, so xsnap runs its
// deliveries under a per-delivery compute limit: spin() never returns and
// xsnap-worker exits with E_TOO_MUCH_COMPUTATION; the kernel records
// ["error","Compute meter exceeded",null] and terminates the vat.
import { Far } from '@endo/far';

export const buildRootObject = () =>
  Far('spinner', {
    ping: () => 'pong',
    spin: () => {
      let x = 0;
      for (;;) x += 1;
    },
  });
