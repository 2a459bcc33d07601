// SPDX-License-Identifier: GPL-2.0
//
// json_writer.hpp - the writer of `wgx show --json` (json.cpp, and the
// settings of options.cpp): members, arrays and objects, two spaces of
// indentation a level, one member or element a line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "format.hpp"

namespace wgx {

/** Builds one JSON document; the calls follow its structure (key, then its value). */
class JsonWriter {
public:
    // An object member: "key": value, with commas and indentation handled here.
    void key(const char *k)
    {
        sep();
        s_ += json_quote(k) + ": ";
        pending_value_ = true;  // the value follows on the same line
    }
    void raw(const std::string &v)
    {
        if (!pending_value_)
            sep();
        pending_value_ = false;
        s_ += v;
        first_ = false;
    }
    void str(std::string_view v) { raw(json_quote(v)); }
    void num(std::uint64_t v) { raw(std::to_string(v)); }
    void snum(std::int64_t v) { raw(std::to_string(v)); }
    void boolean(bool v) { raw(v ? "true" : "false"); }
    void null() { raw("null"); }
    void open(char c)
    {
        if (!pending_value_)
            sep();
        pending_value_ = false;
        s_ += c;
        ++depth_;
        first_ = true;
    }
    void close(char c)
    {
        --depth_;
        if (!first_) {
            s_ += "\n";
            indent();
        }
        s_ += c;
        first_ = false;
    }
    std::string take() { return std::move(s_) + "\n"; }

private:
    void sep()
    {
        if (depth_ == 0)
            return;
        if (!first_)
            s_ += ",";
        s_ += "\n";
        indent();
        first_ = false;
    }
    void indent() { s_.append(static_cast<std::size_t>(depth_) * 2, ' '); }

    std::string s_;
    int depth_ = 0;
    bool first_ = true;
    bool pending_value_ = false;
};

}  // namespace wgx
