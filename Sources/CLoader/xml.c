/* libxml2's real declarations: this file alone is compiled with -I/usr/include/libxml2 (Package.swift). */
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>
#include <stdio.h>
#include <string.h>

#include "datebook_xml.h"
#include "table.h"

#define SAME(ours, theirs) ((int)(ours) == (int)(theirs))
_Static_assert(SAME(DATEBOOK_XML_PARSE_NOERROR, XML_PARSE_NOERROR) && SAME(DATEBOOK_XML_PARSE_NOWARNING, XML_PARSE_NOWARNING)
               && SAME(DATEBOOK_XML_PARSE_NONET, XML_PARSE_NONET) && SAME(DATEBOOK_XML_PARSE_HUGE, XML_PARSE_HUGE),
               "parser options as in parser.h");
_Static_assert(SAME(DATEBOOK_XML_ELEMENT, XML_READER_TYPE_ELEMENT) && SAME(DATEBOOK_XML_TEXT, XML_READER_TYPE_TEXT)
               && SAME(DATEBOOK_XML_CDATA, XML_READER_TYPE_CDATA) && SAME(DATEBOOK_XML_ENTITY_REFERENCE, XML_READER_TYPE_ENTITY_REFERENCE)
               && SAME(DATEBOOK_XML_DOCUMENT_TYPE, XML_READER_TYPE_DOCUMENT_TYPE) && SAME(DATEBOOK_XML_WHITESPACE, XML_READER_TYPE_WHITESPACE)
               && SAME(DATEBOOK_XML_SIGNIFICANT_WHITESPACE, XML_READER_TYPE_SIGNIFICANT_WHITESPACE)
               && SAME(DATEBOOK_XML_END_ELEMENT, XML_READER_TYPE_END_ELEMENT),
               "node types as in xmlreader.h");
#undef SAME

/* X(field, symbol), typed by libxml2's headers. */
#define DATEBOOK_XML_FUNCTIONS(X) \
    X(initParser, xmlInitParser) X(setGenericErrorFunc, xmlSetGenericErrorFunc) X(readerForMemory, xmlReaderForMemory) \
    X(freeTextReader, xmlFreeTextReader) X(textReaderRead, xmlTextReaderRead) X(textReaderNodeType, xmlTextReaderNodeType) \
    X(textReaderDepth, xmlTextReaderDepth) X(textReaderIsEmptyElement, xmlTextReaderIsEmptyElement) \
    X(textReaderIsNamespaceDecl, xmlTextReaderIsNamespaceDecl) X(textReaderConstLocalName, xmlTextReaderConstLocalName) \
    X(textReaderConstNamespaceUri, xmlTextReaderConstNamespaceUri) X(textReaderConstValue, xmlTextReaderConstValue) \
    X(textReaderMoveToNextAttribute, xmlTextReaderMoveToNextAttribute) X(textReaderMoveToElement, xmlTextReaderMoveToElement) \
    X(textReaderGetParserLineNumber, xmlTextReaderGetParserLineNumber) \
    X(textReaderSetErrorHandler, xmlTextReaderSetErrorHandler) X(textReaderLocatorLineNumber, xmlTextReaderLocatorLineNumber)

struct datebook_xml_api {
    DATEBOOK_XML_FUNCTIONS(DATEBOOK_LIBRARY_FIELD)
};

static void initialise(void *table) { ((struct datebook_xml_api *)table)->initParser(); }

DATEBOOK_LIBRARY_ACCESSOR(DATEBOOK_LIBRARY_XML2, struct datebook_xml_api, datebook_xml, DATEBOOK_XML_FUNCTIONS, initialise)

/* libxml2's own messages for anything not routed through a reader's handler: dropped (only the
   CLI prints; a reader's errors reach the caller through datebook_xml_error). */
static void ignore(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static void record_error(void *argument, const char *message, xmlParserSeverities severity, xmlTextReaderLocatorPtr locator) {
    struct datebook_xml_error *error = argument;
    if (severity == XML_PARSER_SEVERITY_WARNING || severity == XML_PARSER_SEVERITY_VALIDITY_WARNING || error->count++ > 0) return;
    const struct datebook_xml_api *api = datebook_xml();
    error->line = (api && locator) ? api->textReaderLocatorLineNumber(locator) : 0;
    snprintf(error->message, sizeof error->message, "%s", message ? message : "unknown error");
    size_t length = strlen(error->message);
    while (length > 0 && (error->message[length - 1] == '\n' || error->message[length - 1] == ' ')) error->message[--length] = 0;
}

datebook_xml_reader *datebook_xml_reader_open(const char *buffer, int size, int options, struct datebook_xml_error *error) {
    const struct datebook_xml_api *api = datebook_xml();
    if (!api) return NULL;
    api->setGenericErrorFunc(NULL, ignore);
    xmlTextReaderPtr reader = api->readerForMemory(buffer, size, NULL, NULL, options);
    if (reader) api->textReaderSetErrorHandler(reader, record_error, error);
    return reader;
}

void datebook_xml_reader_free(datebook_xml_reader *reader) {
    const struct datebook_xml_api *api = datebook_xml();
    if (api && reader) api->freeTextReader(reader);
}

#define DATEBOOK_XML_CALL(type, name, field, cast, otherwise) \
    type name(datebook_xml_reader *reader) { \
        const struct datebook_xml_api *api = datebook_xml(); \
        return api ? cast api->field(reader) : otherwise; \
    }
DATEBOOK_XML_CALL(int, datebook_xml_read, textReaderRead, , -1)
DATEBOOK_XML_CALL(int, datebook_xml_node_type, textReaderNodeType, , -1)
DATEBOOK_XML_CALL(int, datebook_xml_depth, textReaderDepth, , -1)
DATEBOOK_XML_CALL(int, datebook_xml_is_empty_element, textReaderIsEmptyElement, , -1)
DATEBOOK_XML_CALL(int, datebook_xml_is_namespace_decl, textReaderIsNamespaceDecl, , -1)
DATEBOOK_XML_CALL(const char *, datebook_xml_local_name, textReaderConstLocalName, (const char *), NULL)
DATEBOOK_XML_CALL(const char *, datebook_xml_namespace_uri, textReaderConstNamespaceUri, (const char *), NULL)
DATEBOOK_XML_CALL(const char *, datebook_xml_value, textReaderConstValue, (const char *), NULL)
DATEBOOK_XML_CALL(int, datebook_xml_next_attribute, textReaderMoveToNextAttribute, , -1)
DATEBOOK_XML_CALL(int, datebook_xml_move_to_element, textReaderMoveToElement, , -1)
DATEBOOK_XML_CALL(int, datebook_xml_line, textReaderGetParserLineNumber, , 0)
#undef DATEBOOK_XML_CALL
