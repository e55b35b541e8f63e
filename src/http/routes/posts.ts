/**
 * Posts: create (joins the author's grid at the top), read one, delete (leaves the grid).
 *   POST   /v1/me/posts            {caption?, media_url?} → 201 {post, grid_version}
 *   GET    /v1/posts/:post_id      → the post
 *   DELETE /v1/me/posts/:post_id   → {grid_version}
 */
import { Hono } from 'hono';
import type { GridService } from '../../service/grid-service.js';
import type { AppEnv } from '../env.js';
import { readBody } from '../request.js';
import { CreatePostBody, parseIdParam } from '../schemas.js';
import { postView, versionView } from '../views.js';

export function postsRoutes(service: GridService) {
  const app = new Hono<AppEnv>();

  app.post('/me/posts', async (c) => {
    const body = await readBody(c, CreatePostBody, { emptyAsObject: true });
    const out = await service.createPost(c.get('profileId'), {
      caption: body.caption,
      mediaUrl: body.media_url,
    });
    return c.json({ post: postView(out.value), grid_version: versionView(out.version) }, 201);
  });

  app.get('/posts/:post_id', async (c) => {
    const post = await service.getPost(parseIdParam(c.req.param('post_id'), 'post_id'));
    return c.json(postView(post));
  });

  app.delete('/me/posts/:post_id', async (c) => {
    const postId = parseIdParam(c.req.param('post_id'), 'post_id');
    const out = await service.deletePost(c.get('profileId'), postId);
    return c.json({ grid_version: versionView(out.version) });
  });

  return app;
}
