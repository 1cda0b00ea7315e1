import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** One route of a path's first segment: a method, its path template and the handlers it runs in order. */
interface SegmentRoute {
  method: string;
  /** The OpenAPI-style template, `/customers/{externalKey}`. */
  template: string;
  /** The template as Express matches it: any case, one trailing slash or none, a parameter one segment or more. */
  pattern: RegExp;
  parameters: string[];
  handlers: RequestHandler[];
}

/**
 * A parameter's value as Express decodes it: a malformed percent-encoding is a 400 (`Failed to decode param`),
 * which src/app.ts answers `bad_request`.
 */
function decodeParameter(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch (error) {
    if (error instanceof URIError) {
      error.message = `Failed to decode param '${value}'`;
      Object.assign(error, { status: 400 });
    }
    throw error;
  }
}

/** `template`'s parameters' values in `path`, decoded; null when the path is not the template's. */
function matchRoute(route: SegmentRoute, path: string): Record<string, string> | null {
  const match = route.pattern.exec(path);
  if (!match) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < route.parameters.length; index++)
    params[route.parameters[index]!] = decodeParameter(match[index + 1]!);
  return params;
}

/** Runs a handler as an Express layer does: a throw or a rejected promise goes to `next`. */
function runHandler(handler: RequestHandler, req: Request, res: Response, next: NextFunction): void {
  try {
    const result: unknown = handler(req, res, next);
    if (result instanceof Promise)
      result.then(undefined, (error: unknown) => next(error ?? new Error('Rejected promise')));
  } catch (error) {
    next(error);
  }
}

/**
 * The routes of one path's first segment, matched as an Express router of `router.get(path, ...handlers)` routes would
 * match them, in the order declared (any case, an optional trailing slash, parameters decoded, a HEAD request taken by a
 * GET route, a malformed parameter a 400), without a router's setup and walk on each request: one per resource was
 * walked by every API request (docs/performance.md, "Reads, fourth pass").
 */
export class SegmentRoutes {
  private readonly routes: SegmentRoute[] = [];

  add(method: string, template: string, handlers: RequestHandler[]): void {
    const parameters = [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const source = template
      .split(/\{\w+\}/)
      .map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('([^/]+)');
    this.routes.push({
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(`^${source}/?$`, 'i'),
      parameters,
      handlers,
    });
  }

  /** Every route as `method /path/{param}`. */
  operations(): string[] {
    return this.routes.map((route) => `${route.method.toLowerCase()} ${route.template}`);
  }

  /** Hands the request to the first route declared that matches its path and method; `next` when none does. */
  readonly handle = (req: Request, res: Response, next: NextFunction): void => {
    this.dispatchFrom(0, req, res, next);
  };

  private dispatchFrom(first: number, req: Request, res: Response, next: NextFunction): void {
    const path = req.path;
    const method = req.method;
    for (let index = first; index < this.routes.length; index++) {
      const route = this.routes[index]!;
      let params: Record<string, string> | null;
      try {
        params = matchRoute(route, path);
      } catch (error) {
        // As Express: a path a route matches but whose parameter cannot be decoded is an error, whatever the method.
        next(error);
        return;
      }
      if (!params || (route.method !== method && !(method === 'HEAD' && route.method === 'GET'))) continue;
      req.params = params;
      this.runRoute(route, 0, index, req, res, next);
      return;
    }
    next();
  }

  /** The route's handlers from `step`: each one's `next()` runs the one after, past the last the routes after it. */
  private runRoute(
    route: SegmentRoute,
    step: number,
    index: number,
    req: Request,
    res: Response,
    next: NextFunction,
  ): void {
    const handler = route.handlers[step];
    if (!handler) {
      this.dispatchFrom(index + 1, req, res, next);
      return;
    }
    runHandler(handler, req, res, (error?: unknown) => {
      if (error === 'route') this.dispatchFrom(index + 1, req, res, next);
      else if (error === 'router') next();
      else if (error !== undefined && error !== null) next(error);
      else this.runRoute(route, step + 1, index, req, res, next);
    });
  }
}
