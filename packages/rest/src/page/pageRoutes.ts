/** One file of the id page or of the API documentation, served without a token. */
export interface PageRoute {
  readonly path: string;
  /** `page`: this package's `page/` folder; `swagger-ui`: the `swagger-ui-dist` package. */
  readonly from: 'page' | 'swagger-ui';
  readonly file: string;
  readonly contentType: string;
}

const HTML = 'text/html; charset=utf-8';
const SCRIPT = 'text/javascript; charset=utf-8';
const STYLE = 'text/css; charset=utf-8';

/**
 * The id page (`/`) and the rendered OpenAPI document (`/docs`) with their assets. Every
 * reference between them is relative, so they work wherever the app is mounted.
 */
export const PAGE_ROUTES: readonly PageRoute[] = [
  { path: '/', from: 'page', file: 'index.html', contentType: HTML },
  { path: '/docs', from: 'page', file: 'docs.html', contentType: HTML },
  { path: '/assets/page.js', from: 'page', file: 'page.js', contentType: SCRIPT },
  { path: '/assets/page.css', from: 'page', file: 'page.css', contentType: STYLE },
  { path: '/assets/docs.js', from: 'page', file: 'docs.js', contentType: SCRIPT },
  {
    path: '/assets/swagger-ui-bundle.js',
    from: 'swagger-ui',
    file: 'swagger-ui-bundle.js',
    contentType: SCRIPT,
  },
  {
    path: '/assets/swagger-ui.css',
    from: 'swagger-ui',
    file: 'swagger-ui.css',
    contentType: STYLE,
  },
];
