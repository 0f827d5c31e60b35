import * as mappedTypes from '@nestjs/mapped-types';
import type * as Swagger from '@nestjs/swagger';

/**
 * `@nestjs/swagger`, an optional peer dependency: its major follows Nest's (7 or 8 for Nest 10, 11 for Nest 11),
 * so no one version of it installs beside every host. The standalone service has it (it serves `/docs` from these
 * decorators); a host brings its own or none. Without it the decorators record nothing and the mapped types come
 * from `@nestjs/mapped-types`, which carries the validation and transformation metadata the same way.
 */
function loadSwagger(): typeof Swagger | undefined {
  try {
    return require('@nestjs/swagger') as typeof Swagger;
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String(err).includes("'@nestjs/swagger'");
    if (missing) return undefined;
    throw err;
  }
}

const swagger = loadSwagger();
/** a decorator factory that records nothing */
const none = () => () => undefined;

export const ApiAcceptedResponse: typeof Swagger.ApiAcceptedResponse = swagger?.ApiAcceptedResponse ?? none;
export const ApiBody: typeof Swagger.ApiBody = swagger?.ApiBody ?? none;
export const ApiConsumes: typeof Swagger.ApiConsumes = swagger?.ApiConsumes ?? none;
export const ApiCreatedResponse: typeof Swagger.ApiCreatedResponse = swagger?.ApiCreatedResponse ?? none;
export const ApiDefaultResponse: typeof Swagger.ApiDefaultResponse = swagger?.ApiDefaultResponse ?? none;
export const ApiExcludeController: typeof Swagger.ApiExcludeController = swagger?.ApiExcludeController ?? none;
export const ApiHeader: typeof Swagger.ApiHeader = swagger?.ApiHeader ?? none;
export const ApiNoContentResponse: typeof Swagger.ApiNoContentResponse = swagger?.ApiNoContentResponse ?? none;
export const ApiOkResponse: typeof Swagger.ApiOkResponse = swagger?.ApiOkResponse ?? none;
export const ApiOperation: typeof Swagger.ApiOperation = swagger?.ApiOperation ?? none;
export const ApiProduces: typeof Swagger.ApiProduces = swagger?.ApiProduces ?? none;
export const ApiProperty: typeof Swagger.ApiProperty = swagger?.ApiProperty ?? none;
export const ApiPropertyOptional: typeof Swagger.ApiPropertyOptional = swagger?.ApiPropertyOptional ?? none;
export const ApiQuery: typeof Swagger.ApiQuery = swagger?.ApiQuery ?? none;
export const OmitType: typeof Swagger.OmitType = swagger?.OmitType ?? mappedTypes.OmitType;
