import { Readable } from 'node:stream';
import type { LarderModule } from '../../module-api/larder-module.ts';
import { ARCHIVE_PATH, archiveCsv, archiveExists } from './archives.ts';
import { leaderboardRoutes } from './routes.ts';

const FILE_KEY = /^[0-9a-f]{24}\.csv$/;

/**
 * Leaderboards (`AV.Leaderboard`): leaderboards with versions and archives, users' statistics
 * by update strategy, index-backed rankings. docs/leaderboards.md.
 */
export function leaderboardsModule(): LarderModule {
  return {
    name: 'leaderboards',
    routes: () => leaderboardRoutes,
    async mount(server, app) {
      // The archive links: a plain GET with the unguessable file key, no API headers.
      server.get<{ Params: { file: string } }>(`${ARCHIVE_PATH}/:file`, async (req, reply) => {
        const file = req.params.file;
        if (!FILE_KEY.test(file) || !(await archiveExists(app, file))) {
          return reply.code(404).send({ code: 404, error: 'Not found.' });
        }
        return reply
          .headers({ 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${file}"`, 'cache-control': 'no-store' })
          .send(Readable.from(archiveCsv(app, file)));
      });
    },
  };
}
