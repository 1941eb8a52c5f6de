// phoenix: a dynamic vat upgraded twice: to version 2 (works), then to
// version 'broken', whose buildRootObject throws, so that upgrade fails and
// the kernel puts version 2 back.  It also hands out objects the caller
// drops (GC: dropExports / retireExports, and bringOutYourDead), logs a lot
// (heavy console output) and can end itself (exitVatWithFailure).
import { Far } from '@endo/far';
import { provideDurableSetStore } from '@agoric/vat-data';

export const buildRootObject = (vatPowers, vatParameters, baggage) => {
  const { version } = vatParameters;
  if (version === 'broken') throw Error('phoenix: version broken refuses to start');
  const seen = provideDurableSetStore(baggage, 'seen');
  return Far('phoenix', {
    version: () => version,
    ping: () => `pong from version ${version}`,
    add: key => {
      if (!seen.has(key)) seen.add(key);
      return seen.getSize();
    },
    // Ephemeral objects the caller drops: the kernel's GC delivers
    // dropExports and retireExports here.
    things: n => harden(Array.from({ length: n }, (_, i) => Far(`thing${i}`, { i: () => i }))),
    chatter: n => {
      for (let i = 0; i < n; i += 1) console.log(`phoenix says ${i + 1} of ${n}`);
      return n;
    },
    quit: why => vatPowers.exitVatWithFailure(Error(why)),
  });
};
