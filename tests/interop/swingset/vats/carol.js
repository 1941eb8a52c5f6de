// carol: pipelines through bob's promises and provokes a rejection that
// she logs herself (vat console output) on top of liveslots' own log.
import { E, Far } from '@endo/far';

export const buildRootObject = () =>
  Far('carol', {
    play: async (bob, round) => {
      // Pipelined: deposit and withdraw go to the promise for the account
      // before makeAccount's result is known.
      const account = E(bob).makeAccount(`carol-${round}`);
      const d1 = E(account).deposit(BigInt(round) * 10n);
      const d2 = E(account).deposit(5n);
      await Promise.all([d1, d2]);
      const overdraw = E(account).withdraw(1000000n);
      const msg = await overdraw.then(
        () => 'unexpected success',
        err => {
          console.log(`carol round ${round}: rejected as expected:`, err);
          return `rejected: ${err.message}`;
        },
      );
      return harden({ round, balance: await E(account).balance(), msg });
    },
    // A delivery that only computes (gen-slog.mjs --spin: a worker on its
    // CPU, tests/os/swingset.test).
    spin: n => {
      let x = 0;
      for (let i = 0; i < n; i += 1) x += i;
      return x;
    },
  });
