/** The Hono environment shared by the app and its sub-apps. */
export interface AppEnv {
  Variables: {
    /** Set by the auth middleware on /v1/me/* routes. */
    profileId: bigint;
  };
}
