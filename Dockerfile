# syntax=docker/dockerfile:1
# Two images from one file (see docker-compose.yml):
#  - target `temporal`: the Temporal server, temporal-sql-tool, the CLI and the Web UI server, built by
#    scripts/bootstrap.mjs from the versions pinned in scripts/tool-versions.json (the same programs
#    `npm install` builds into .tools/), with scripts/temporal-setup.sh as entry point: `schema`,
#    `serve`, `register`, `ui`, `health` are the same steps `TEMPORAL_ENGINE=server npm start` and the tests run.
#  - target `app` (default): the API (`npm run start:api`) and the worker (`npm run start:worker`),
#    with the workflow bundle built into the image (WORKFLOW_BUNDLE).

FROM node:20-bookworm AS temporal-build
COPY --from=golang:1.26-bookworm /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH TOOLS_DIR=/opt/tools
WORKDIR /src
COPY scripts/bootstrap.mjs scripts/tool-versions.json scripts/
RUN node scripts/bootstrap.mjs go \
 && mkdir -p /opt/temporal/bin \
 && mv /opt/tools/bin/temporal /opt/tools/temporal-server/*/temporal-server /opt/tools/temporal-server/*/temporal-sql-tool \
       /opt/tools/temporal-ui-server/*/temporal-ui-server /opt/temporal/bin/ \
 && mv /opt/tools/temporal-server/*/schema /opt/temporal/schema

FROM debian:bookworm-slim AS temporal
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/* \
 && useradd --system --create-home temporal
COPY --from=temporal-build /opt/temporal/bin/ /usr/local/bin/
COPY --from=temporal-build /opt/temporal/schema /etc/temporal/schema
COPY deploy/temporal /etc/temporal/deploy
COPY scripts/temporal-setup.sh /usr/local/bin/temporal-setup.sh
ENV TEMPORAL_DEPLOY_DIR=/etc/temporal/deploy TEMPORAL_SCHEMA_DIR=/etc/temporal/schema/postgresql/v12 TEMPORAL_BIND_IP=0.0.0.0
USER temporal
ENTRYPOINT ["temporal-setup.sh"]
CMD ["serve"]

FROM node:20-bookworm-slim AS app
WORKDIR /app
ENV NODE_ENV=production SKIP_TOOLS_BOOTSTRAP=1 WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
# Dev dependencies are kept: tsx runs the TypeScript sources.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY data ./data
# Workers load this bundle instead of bundling the workflows at every start.
RUN npm run build:workflows -- "$WORKFLOW_BUNDLE"
# The dashboard's single-page app (npm ci ran before the sources were here, so its postinstall skipped it).
RUN npm run build:dashboard
USER node
EXPOSE 3000
CMD ["npm", "run", "start:api"]
