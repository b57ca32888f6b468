#ifndef DATEBOOK_XML_H
#define DATEBOOK_XML_H

#include "datebook_libraries.h"

/* libxml2's streaming reader (xmlreader.h), opened on first use (datebook_libraries.h): only the
   CalDAV sync reads XML (DatebookSync's DAVXMLReader is the only caller). libxml2's headers sit in
   /usr/include/libxml2, which only this target's own C files are compiled with (Package.swift):
   the table of functions and these wrappers live in xml.c, typed by libxml2's declarations, and
   this header, which Swift imports, needs none of libxml2's. Without the library a reader cannot
   be opened and datebook_library_problem(DATEBOOK_LIBRARY_XML2) says why. */

typedef struct _xmlTextReader datebook_xml_reader;   /* libxml2's xmlTextReader */

/* xmlParserOption values (parser.h; xml.c checks them against it). */
enum {
    DATEBOOK_XML_PARSE_NOERROR = 1 << 5,
    DATEBOOK_XML_PARSE_NOWARNING = 1 << 6,
    DATEBOOK_XML_PARSE_NONET = 1 << 11,
    DATEBOOK_XML_PARSE_HUGE = 1 << 19,
};

/* xmlReaderTypes values (xmlreader.h; xml.c checks them against it). */
enum {
    DATEBOOK_XML_ELEMENT = 1,
    DATEBOOK_XML_TEXT = 3,
    DATEBOOK_XML_CDATA = 4,
    DATEBOOK_XML_ENTITY_REFERENCE = 5,
    DATEBOOK_XML_DOCUMENT_TYPE = 10,
    DATEBOOK_XML_WHITESPACE = 13,
    DATEBOOK_XML_SIGNIFICANT_WHITESPACE = 14,
    DATEBOOK_XML_END_ELEMENT = 15,
};

/* The table (its type is xml.c's), or NULL when libxml2 cannot be loaded. */
const struct datebook_xml_api *datebook_xml(void);

/* The first error a reader reported: its message (libxml2's words) and line; count 0 when none. */
struct datebook_xml_error {
    int count;
    int line;
    char message[512];
};

/* A reader over `size` bytes (not copied: they must outlive it) whose errors go to `error`;
   NULL when libxml2 is missing or refuses the buffer. No network, no DTD loading, no entity
   substitution (options other than these stay off). */
datebook_xml_reader *datebook_xml_reader_open(const char *buffer, int size, int options, struct datebook_xml_error *error);
void datebook_xml_reader_free(datebook_xml_reader *reader);

/* One wrapper per reader call; a reader exists only when the table does. */
int datebook_xml_read(datebook_xml_reader *reader);
int datebook_xml_node_type(datebook_xml_reader *reader);
int datebook_xml_depth(datebook_xml_reader *reader);
int datebook_xml_is_empty_element(datebook_xml_reader *reader);
int datebook_xml_is_namespace_decl(datebook_xml_reader *reader);
const char *datebook_xml_local_name(datebook_xml_reader *reader);
const char *datebook_xml_namespace_uri(datebook_xml_reader *reader);
const char *datebook_xml_value(datebook_xml_reader *reader);
int datebook_xml_next_attribute(datebook_xml_reader *reader);
int datebook_xml_move_to_element(datebook_xml_reader *reader);
int datebook_xml_line(datebook_xml_reader *reader);

#endif
