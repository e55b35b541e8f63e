/** The Hono environment shared by the app and its sub-apps. */
export interface AppEnv {
  Variables: {
    /** Set by the auth middleware on /v1/me/* routes. */
    profileId: bigint;
    /** Set by the observe middleware on every request (http/observe.ts). */
    requestId: string;
  };
}
