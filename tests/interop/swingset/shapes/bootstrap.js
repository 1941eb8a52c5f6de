// bootstrap for gen-shapes.mjs: makes the dynamic vats, then plays one
// step per `step(name, ...args)` the host queues.  Every step depends only
// on its arguments, so two runs make the same deliveries.
import { E, Far } from '@endo/far';

export const buildRootObject = () => {
  let vats;
  let admin;
  let spinner;
  let spinnerAdmin;
  let phoenix;
  let phoenixAdmin;
  const after = (p, ok, bad) => p.then(ok, err => `${bad}: ${err.message}`);
  const steps = harden({
    // capper.burn(gets, lines): see capper.js.
    burn: (gets, lines) => E(vats.capper).burn(gets, lines),
    // One delivery to each vat in turn: with maxVatsOnline the warehouse
    // evicts the least recently used workers, and the next delivery to one
    // reloads it, replaying its transcript.
    touchAll: async () => {
      for (const v of [vats.capper, vats.sleeper, phoenix]) {
        // eslint-disable-next-line no-await-in-loop
        await E(v).ping();
      }
      return 'touched';
    },
    upgrade: async version => {
      const bcap = await E(admin).getNamedBundleCap('phoenix');
      return after(
        E(phoenixAdmin).upgrade(bcap, { vatParameters: { version } }),
        r => `upgraded to ${version}, incarnation ${r.incarnationNumber}`,
        `upgrade to ${version} failed`,
      );
    },
    // The things are dropped as soon as this returns: the kernel's GC
    // then delivers dropExports/retireExports to phoenix.
    things: async n => (await E(phoenix).things(n)).length,
    add: key => E(phoenix).add(key),
    chatter: n => E(phoenix).chatter(n),
    quit: async () => {
      const done = E(phoenixAdmin).done();
      await E(phoenix).quit('phoenix quits').catch(() => {});
      return after(done, () => 'phoenix ended', 'phoenix ended');
    },
    spin: async () => {
      const done = E(spinnerAdmin).done();
      const r = await after(E(spinner).spin(), () => 'spin returned', 'spin');
      const d = await after(done, () => 'done', 'spinner terminated');
      return `${r}; ${d}`;
    },
    work: spins => E(vats.sleeper).work(spins),
  });

  return Far('root', {
    bootstrap: async (vatObjects, devices) => {
      vats = vatObjects;
      admin = await E(vats.vatAdmin).createVatAdminService(devices.vatAdmin);
      // A meter makes the vat "metered": xsnap runs each of its
      // deliveries under a compute limit.
      const meter = await E(admin).createUnlimitedMeter();
      const s = await E(admin).createVat(
        await E(admin).getNamedBundleCap('spinner'),
        { name: 'spinner', meter },
      );
      spinner = s.root;
      spinnerAdmin = s.adminNode;
      const p = await E(admin).createVat(
        await E(admin).getNamedBundleCap('phoenix'),
        { name: 'phoenix', vatParameters: { version: 1 } },
      );
      phoenix = p.root;
      phoenixAdmin = p.adminNode;
      return 'bootstrapped';
    },
    step: (name, ...args) => steps[name](...args),
  });
};
