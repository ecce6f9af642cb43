#include "report/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "report/files.hpp"
#include "util/text.hpp"

namespace conform::report {

namespace {

constexpr int k_left = 12;
constexpr int k_axis_width = 720;
constexpr int k_marks_height = 38;  // above the axis, for the resumed checkpoints' marks
constexpr std::string_view k_clean_colour = "#1a7f37";
constexpr std::string_view k_lost_colour = "#cf222e";
constexpr std::string_view k_repeated_colour = "#bf8700";

std::uint64_t axis_end(const RunSummary& run) {
    std::uint64_t end = std::max<std::uint64_t>(run.records, 1);
    for (const auto& checkpoint : run.timeline.checkpoints) {
        end = std::max(end, checkpoint.records_before);
    }
    for (const auto& resume : run.timeline.resumes) {
        end = std::max(end, resume.records_before);
    }
    return end;
}

int x_of(std::uint64_t records, std::uint64_t end) {
    return k_left +
           static_cast<int>(static_cast<double>(records) * k_axis_width / static_cast<double>(end));
}

// One tick per STATE; STATEs that fall on the same pixel share it, so a long run stays small.
std::string ticks_svg(const RunSummary& run, std::uint64_t end, int axis_y) {
    std::set<int> drawn;
    std::string svg;
    for (const auto& checkpoint : run.timeline.checkpoints) {
        int x = x_of(checkpoint.records_before, end);
        if (drawn.insert(x).second) {
            svg += fmt::format(
                "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#57606a\"/>", x,
                axis_y - 6, axis_y + 6);
        }
    }
    return svg;
}

std::string_view colour_of(const ResumedCheckpoint& resume) {
    return resume.lost > 0       ? k_lost_colour
           : resume.repeated > 0 ? k_repeated_colour
                                 : k_clean_colour;
}

// Shape as well as colour tells the outcome: a circle is clean, a square lost records, a diamond
// repeated them (a square when it did both: a loss is the worse).
std::string resume_mark_svg(const ResumedCheckpoint& resume, std::uint64_t end, int axis_y) {
    int x = x_of(resume.records_before, end);
    int y = axis_y - 24;
    auto title = fmt::format("<title>checkpoint {} (stdout line {}, after {} records): {}</title>",
                             resume.checkpoint, resume.line, resume.records_before,
                             markup_escaped(resume_outcome(resume)));
    std::string shape;
    if (resume.lost > 0) {
        shape =
            fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\">{}</rect>",
                        x - 6, y - 6, colour_of(resume), title);
    } else if (resume.repeated > 0) {
        shape = fmt::format("<polygon points=\"{},{} {},{} {},{} {},{}\" fill=\"{}\">{}</polygon>",
                            x, y - 7, x + 7, y, x, y + 7, x - 7, y, colour_of(resume), title);
    } else {
        shape = fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"{}\">{}</circle>", x, y,
                            colour_of(resume), title);
    }
    return shape + fmt::format(
                       "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\" "
                       "stroke-dasharray=\"2,2\"/>",
                       x, y + 6, axis_y, colour_of(resume));
}

// The checkpoint's number above its mark, unless it would overlap the previous number.
std::string resume_number_svg(const ResumedCheckpoint& resume, std::uint64_t end, int axis_y,
                              int& free_from) {
    int x = x_of(resume.records_before, end);
    auto text = std::to_string(resume.checkpoint);
    int half_width = static_cast<int>(text.size()) * 3 + 2;
    if (x - half_width < free_from) {
        return {};
    }
    free_from = x + half_width;
    return fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
                       x, axis_y - 33, text);
}

std::string timeline_svg(const RunSummary& run) {
    auto end = axis_end(run);
    int axis_y = 14 + (run.timeline.resumes.empty() ? 0 : k_marks_height);
    std::string svg = fmt::format(
        "<svg class=\"timeline\" role=\"img\" width=\"{}\" height=\"{}\" aria-label=\"checkpoint "
        "timeline of {}\">",
        k_left * 2 + k_axis_width, axis_y + 24, markup_escaped(run.label));
    svg += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#1b1f24\" stroke-width=\"2\"/>",
        k_left, k_left + k_axis_width, axis_y, axis_y);
    svg += ticks_svg(run, end, axis_y);
    int free_from = 0;
    for (const auto& resume : run.timeline.resumes) {
        svg += resume_mark_svg(resume, end, axis_y) +
               resume_number_svg(resume, end, axis_y, free_from);
    }
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"11\">0</text><text x=\"{}\" y=\"{}\" "
        "font-size=\"11\" text-anchor=\"end\">{} records</text>",
        k_left, axis_y + 20, k_left + k_axis_width, axis_y + 20, end);
    return svg + "</svg>";
}

std::string outcome_badge(const ResumedCheckpoint& resume) {
    std::string_view css = resume.lost > 0 ? "failed" : resume.repeated > 0 ? "warned" : "passed";
    return fmt::format("<span class=\"badge {}\" style=\"white-space:nowrap\">{}</span>", css,
                       markup_escaped(resume_outcome(resume)));
}

std::string cut_names(const std::vector<std::string>& names) {
    std::string joined;
    for (const auto& name : names) {
        joined += (joined.empty() ? "" : ", ") + excerpt(name, k_report_name_bytes);
    }
    return joined;
}

std::string resumes_table(const RunSummary& run) {
    std::string html =
        "<table class=\"resumes\"><tr><th>Checkpoint</th><th>stdout line</th><th>Records "
        "before</th><th>Streams</th><th>Resumed run</th><th>Outcome</th><th>Example</th></tr>";
    const auto& checkpoints = run.timeline.checkpoints;
    for (const auto& resume : run.timeline.resumes) {
        std::string streams = fmt::format("(past the first {} STATEs kept)", checkpoints.size());
        if (resume.checkpoint >= 1 && resume.checkpoint <= checkpoints.size()) {
            const auto& mark = checkpoints[resume.checkpoint - 1];
            streams = mark.all_streams ? "all" : cut_names(mark.streams);
        }
        std::string example = excerpt(resume.lost_example, k_report_message_bytes);
        if (!resume.repeated_example.empty()) {
            example += (example.empty() ? "" : "; ") +
                       excerpt(resume.repeated_example, k_report_message_bytes);
        }
        html += fmt::format(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td>"
            "<td>{}</td></tr>",
            resume.checkpoint, resume.line, resume.records_before, markup_escaped(streams),
            markup_escaped(resume.run), outcome_badge(resume), markup_escaped(example));
    }
    return html + "</table>";
}

std::string timeline_caption(const RunSummary& run) {
    const auto& timeline = run.timeline;
    auto lost = std::count_if(timeline.resumes.begin(), timeline.resumes.end(),
                              [](const auto& resume) { return resume.lost > 0; });
    auto repeated = std::count_if(timeline.resumes.begin(), timeline.resumes.end(),
                                  [](const auto& resume) { return resume.repeated > 0; });
    std::string text = fmt::format("checkpoints of run {}: {} STATE(s) over {} record(s)",
                                   run.label, timeline.total, run.records);
    if (timeline.total > timeline.checkpoints.size()) {
        text += fmt::format(", the first {} drawn", timeline.checkpoints.size());
    }
    if (!timeline.resumes.empty()) {
        text += fmt::format("; {} resumed: ", timeline.resumes.size());
        auto clean = std::count_if(timeline.resumes.begin(), timeline.resumes.end(),
                                   [](const auto& resume) { return resume.clean(); });
        std::vector<std::string> outcomes;
        if (clean > 0) {
            outcomes.push_back(fmt::format("{} clean", clean));
        }
        if (lost > 0) {
            outcomes.push_back(fmt::format("{} lost records", lost));
        }
        if (repeated > 0) {
            outcomes.push_back(fmt::format("{} repeated records", repeated));
        }
        text += clean == static_cast<std::ptrdiff_t>(timeline.resumes.size())
                    ? std::string("all clean")
                    : fmt::format("{}", fmt::join(outcomes, ", "));
    }
    return markup_escaped(text);
}

std::string timeline_html(const RunSummary& run) {
    std::string html = "<div class=\"checkpoint-timeline\"><p class=\"label\">" +
                       timeline_caption(run) + "</p>" + timeline_svg(run);
    if (!run.timeline.resumes.empty()) {
        html += resumes_table(run);
    }
    return html + "</div>";
}

}  // namespace

std::string resume_outcome(const ResumedCheckpoint& resume) {
    if (resume.clean()) {
        return "clean";
    }
    std::string text;
    if (resume.lost > 0) {
        text = fmt::format("lost {}", resume.lost);
    }
    if (resume.repeated > 0) {
        text += fmt::format("{}repeated {}", text.empty() ? "" : ", ", resume.repeated);
    }
    return text;
}

std::string checkpoint_timelines_html(const std::vector<RunSummary>& runs) {
    std::string resumed;
    std::string others;
    std::size_t other_count = 0;
    for (const auto& run : runs) {
        if (run.timeline.total == 0) {
            continue;
        }
        if (!run.timeline.resumes.empty()) {
            resumed += timeline_html(run);
        } else {
            others += timeline_html(run);
            ++other_count;
        }
    }
    if (resumed.empty() && others.empty()) {
        return {};
    }
    std::string html =
        "<p class=\"label\">checkpoint timeline: a tick per STATE; a resumed "
        "checkpoint is a green circle (clean), a red square (lost records) or an "
        "amber diamond (repeated records)</p>" +
        resumed;
    if (!others.empty()) {
        html += fmt::format(
            "<details><summary>checkpoints of {} other run(s) with STATEs</summary>{}</details>",
            other_count, others);
    }
    return html;
}

}  // namespace conform::report
