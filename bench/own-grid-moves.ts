/**
 * The load of the write-path benchmarks (move-cpu.ts, http-move-cpu.ts): each writer moves only
 * on its own grid, waiting for each answer, until `moves` moves have been started in all; a random
 * post after a random anchor (a quarter of them to the top), from a seeded generator so runs of
 * the same benchmark move alike.
 */
export interface OwnGrid {
  readonly profileId: bigint;
  readonly posts: readonly bigint[];
}

export type Move = (profileId: bigint, postId: bigint, after: bigint | null) => Promise<unknown>;

/** A seeded generator of moves over `grids`; each call runs `moves` more of them. */
export function ownGridMoves(grids: readonly OwnGrid[], move: Move, seed: number) {
  let state = seed;
  const rnd = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return async (moves: number): Promise<void> => {
    let started = 0;
    await Promise.all(
      grids.map(async ({ profileId, posts }) => {
        while (started++ < moves) {
          const post = posts[Math.floor(rnd() * posts.length)]!;
          const anchor = rnd() < 0.25 ? null : posts[Math.floor(rnd() * posts.length)]!;
          await move(profileId, post, anchor === post ? null : anchor);
        }
      }),
    );
  };
}
