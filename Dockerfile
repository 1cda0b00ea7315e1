# Production image for both processes: `npm run start:api` and `npm run start:worker` (see docker-compose.yml).
# Untested here (no Docker engine on the development machines); kept small on purpose.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production SKIP_TOOLS_BOOTSTRAP=1
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
# Dev dependencies are kept: tsx runs the TypeScript sources and the worker bundles workflows at start.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY data ./data
USER node
EXPOSE 3000
CMD ["npm", "run", "start:api"]
