// bootstrap: wires the kernel's own vats (vatAdmin, timer, vattp, the
// local comms vat) and the scenario vats together, then plays one round per
// `round(n)` message queued by the host (gen-slog.mjs).  Everything here
// depends only on n and on the timer values the host polls in, never on the
// wall clock, so two runs make the same deliveries.
import { E, Far } from '@endo/far';

export const buildRootObject = vatPowers => {
  const { D } = vatPowers;
  // Ephemeral on purpose: after the controller restart this vat is rebuilt
  // from its heap snapshot plus a replay of its transcript, which restores
  // these references.
  let vats;
  let timer;
  let vatAdminSvc;
  let ledger;
  let ledgerAdmin;
  let remote;
  let wakeups = 0;

  return Far('root', {
    bootstrap: async (vatObjects, devices) => {
      vats = vatObjects;
      vatAdminSvc = await E(vats.vatAdmin).createVatAdminService(
        devices.vatAdmin,
      );
      timer = await E(vats.timer).createTimerService(devices.timer);

      // comms + vattp + mailbox, as a chain's bootstrap connects them:
      // deliveries to comms run in the kernel process (managerType local).
      D(devices.mailbox).registerInboundHandler(vats.vattp);
      await E(vats.vattp).registerMailboxDevice(devices.mailbox);
      const { transmitter, setReceiver } = await E(vats.vattp).addRemote(
        'peer',
      );
      await E(vats.comms).addRemote('peer', transmitter, setReceiver);
      await E(vats.comms).addEgress('peer', 1, vats.alice);
      remote = await E(vats.comms).addIngress('peer', 1, 'remote-greeter');

      await E(vats.bob).setAlice(vats.alice);

      // A dynamic vat, created (and later upgraded) through vatAdmin.
      const bcap = await E(vatAdminSvc).getNamedBundleCap('ledger');
      ({ root: ledger, adminNode: ledgerAdmin } = await E(
        vatAdminSvc,
      ).createVat(bcap, { name: 'ledger', vatParameters: { version: 1 } }));
      return 'bootstrapped';
    },

    round: async (n, upgradeAt) => {
      // Sent into comms, which transmits it to the remote peer through
      // vattp and the mailbox device; nobody answers, which is fine.
      void E(remote).greet(`round ${n}`);

      // A timer wakeup: resolved when the host polls the timer device past
      // it, which makes device -> timer vat -> bootstrap deliveries.
      void E(timer)
        .delay(5n)
        .then(() => {
          wakeups += 1;
        });

      // Pipelining into alice (not pipelining-enabled: the kernel holds
      // the message until makeCounter's result is resolved).
      const counter = E(vats.alice).makeCounter(`counter-${n}`);
      const counted = E(counter).increment(BigInt(n));

      const played = E(vats.carol).play(vats.bob, n);
      const added = E(ledger).add(`round-${n}`);

      if (n === upgradeAt) {
        const bcap = await E(vatAdminSvc).getNamedBundleCap('ledger');
        await E(ledgerAdmin).upgrade(bcap, { vatParameters: { version: 2 } });
      }
      const [count, play, ledgerState, total] = await Promise.all([
        counted,
        played,
        added,
        E(vats.alice).total(),
      ]);
      return harden({ n, count, play, ledgerState, total, wakeups });
    },
  });
};
